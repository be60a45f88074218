import { describe, expect, inject, it } from 'vitest';
import type { Project } from '../../shared/schemas/project';
import type { Integration } from '../../shared/schemas/integrations';
import { axeViolations, describeViolations, settle, useTheme } from '../support/a11y';
import { proUserInChromium, screenshotPath } from '../support/browser';
import { localScimDirectory } from '../support/provisioned-project';

const app = inject('stack').urls.app;

/**
 * Extra columns (issue 28 item 5) as a person meets them: a CSV with department and title
 * uploaded in the Bulk Creator, the values in the account's drawer, the Account Database filtered
 * by a department, and an integration's 'Columns on the platform' edited with its preview; light
 * and dark, desktop and 390 px, axe clean.
 */
describe('Extra columns in Chromium', () => {
  const session = proUserInChromium('account-attributes', { firstName: 'Column', lastName: 'Tester' });
  const tag = `${Date.now() % 100_000}`;
  const csv = ['First Name,Last Name,Email,Department,Job Title', `Nora${tag},Vale,nora.${tag}@example.com,Research,Analyst`, `Omar${tag},Reyes,omar.${tag}@example.com,Sales,Rep`].join('\n');
  let project: Project;

  /** An account's drawer opened from its row menu on the project page, and its Details. */
  const openHistory = async (projectId: string, fullName: string) => {
    const { page } = session;
    await page.goto(`${app}/projects/${projectId}`);
    await page.getByRole('button', { name: `Actions for ${fullName}` }).click();
    const history = page.getByRole('menuitem', { name: 'History' });
    await history.waitFor();
    await settle(page);
    await history.click();
    const drawer = page.getByRole('dialog', { name: `History of ${fullName}` });
    return { drawer, details: drawer.getByTestId('account-details') };
  };

  it('keeps the columns of an uploaded CSV and shows them in the account drawer', async () => {
    const { page, user } = session;
    await page.goto(`${app}/bulk-creator`);
    await page.getByRole('heading', { name: 'Bulk Account Creator', level: 1 }).waitFor();
    await page.getByLabel('Upload CSV').setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    const dialog = page.getByRole('dialog', { name: 'Bulk Create Accounts' });
    await dialog.getByText('2 valid').waitFor();
    await dialog.getByLabel('Project name').fill(`Columns ${tag}`);
    await dialog.getByRole('button', { name: 'Generate Accounts' }).click();
    await dialog.getByText('2 accounts created').waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'hidden' });
    project = (await user.json<Project[]>('/api/projects')).find((p) => p.name === `Columns ${tag}`)!;
    expect(project.attributeKeys).toEqual(['department', 'title']);

    const { drawer, details } = await openHistory(project.id, `Nora${tag} Vale`);
    await details.getByText('Research').waitFor();
    await details.getByText('Analyst').waitFor();
    expect(describeViolations('account drawer with details (light)', await axeViolations(page))).toEqual([]);
    await page.screenshot({ path: screenshotPath('account-details-drawer-light') });
    await drawer.getByRole('button', { name: 'Close the history' }).click();
    await drawer.waitFor({ state: 'hidden' });
  });

  /** The Account Database filtered to the Sales department (the filters live in the page: a reload clears them). */
  const filterBySales = async () => {
    const { page } = session;
    await page.goto(`${app}/accounts`);
    await page.getByRole('button', { name: /^Filters/ }).click();
    const filters = page.getByRole('group', { name: 'Filters' });
    await filters.getByLabel('Attribute', { exact: true }).selectOption('department');
    await filters.getByLabel('Attribute value').fill('sales');
    await page.getByRole('list', { name: 'Active filters' }).getByText('Department: sales').waitFor();
    await page.getByRole('cell', { name: `omar.${tag}@example.com` }).waitFor();
    await page.getByRole('cell', { name: `nora.${tag}@example.com` }).waitFor({ state: 'detached' });
    // The badge is exact (the project counts its column values), not 'Up to 2 results'.
    await page.getByText('1 result', { exact: true }).waitFor();
  };

  it('filters the Account Database by a department', async () => {
    const { page } = session;
    await filterBySales();
    expect(describeViolations('attribute filter (light)', await axeViolations(page))).toEqual([]);
    await page.screenshot({ path: screenshotPath('account-database-attribute-filter-light') });
    for (const [theme, width] of [
      ['dark', 1280],
      ['dark', 390],
      ['light', 390],
    ] as const) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await useTheme(page, theme);
      await filterBySales();
      expect(describeViolations(`attribute filter (${theme}, ${width})`, await axeViolations(page))).toEqual([]);
      await page.screenshot({ path: screenshotPath(`account-database-attribute-filter-${theme}-${width}`) });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await useTheme(page, 'light');
  });

  it("edits an integration's columns on the platform and previews a person", async () => {
    const { page, user } = session;
    const directory = localScimDirectory();
    const token = directory.authConfig.token;
    const integration = await user.json<Integration>('/api/integrations', { body: { ...directory, name: `SCIM ${tag}` } });
    const dialog = page.getByRole('dialog', { name: 'Edit Integration' });
    const mapping = dialog.getByTestId('attribute-mapping');
    const preview = dialog.getByTestId('attribute-preview');
    /** The integration's dialog opened again (a reload closes it), previewing its default mapping. */
    const openAndPreview = async () => {
      await page.goto(`${app}/integrations`);
      await page.getByRole('listitem').filter({ hasText: `SCIM ${tag}` }).getByRole('button', { name: 'Edit' }).click();
      await mapping.scrollIntoViewIfNeeded();
      await mapping.getByRole('button', { name: 'Preview a person' }).click();
      await preview.getByText('POST /Users').waitFor();
    };
    await openAndPreview();
    // The platform's default to start from: department to the enterprise extension.
    expect(await mapping.getByLabel('Column', { exact: true }).first().inputValue()).toBe('department');
    const body = await preview.getByLabel('Request body').innerText();
    expect(body).toContain('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User');
    expect(body).toContain('"department": "Research"');
    expect(body).toContain('••••••••');
    expect(body).not.toContain(token);
    expect(describeViolations('mapping preview (light)', await axeViolations(page))).toEqual([]);
    await page.screenshot({ path: screenshotPath('integration-mapping-preview-light') });
    for (const [theme, width] of [
      ['dark', 1280],
      ['dark', 390],
    ] as const) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await useTheme(page, theme);
      await openAndPreview();
      expect(describeViolations(`mapping preview (${theme}, ${width})`, await axeViolations(page))).toEqual([]);
      await page.screenshot({ path: screenshotPath(`integration-mapping-preview-${theme}-${width}`) });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await useTheme(page, 'light');
    await page.goto(`${app}/integrations`);
    await page.getByRole('listitem').filter({ hasText: `SCIM ${tag}` }).getByRole('button', { name: 'Edit' }).click();
    await mapping.getByRole('button', { name: 'Add a column' }).click();
    await mapping.getByLabel('Column', { exact: true }).last().fill('costCenter');
    await mapping.getByLabel('Platform attribute for costCenter').selectOption('enterprise.costCenter');
    await dialog.getByRole('button', { name: 'Save Changes' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const saved = (await user.json<Integration[]>('/api/integrations')).find((i) => i.id === integration.id)!;
    expect(saved.apiConfig.provisioning?.attributeMapping).toMatchObject({ department: 'enterprise.department', costCenter: 'enterprise.costCenter' });
  });

  it("adds a named column in the Bulk Creator's manual entry; its value lands in the account drawer", async () => {
    const { page, user } = session;
    const name = `Manual columns ${tag}`;
    /** The manual entry filled in: one person, and a column 'Cost Center' added with their value. */
    const fillIn = async () => {
      await page.goto(`${app}/bulk-creator`);
      await page.getByRole('tab', { name: 'Manual Entry' }).click();
      await page.getByLabel('Project name').fill(name);
      await page.getByLabel('First name').fill(`Cole${tag}`);
      await page.getByLabel('Last name').fill('Manual');
      await page.getByLabel('Email').fill(`cole.${tag}@example.com`);
      await page.getByRole('button', { name: 'Add column' }).click();
      // A fixed field is refused in words; a name is kept as typed.
      await page.getByLabel('Column name').fill('E-mail');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await page.getByText('First name, last name and e-mail are columns already').waitFor();
      await page.getByLabel('Column name').fill('Cost Center');
      await page.getByLabel('Column name').press('Enter');
      await page.getByRole('list', { name: 'Extra columns' }).getByText('Cost Center').waitFor();
      await page.getByLabel('Cost Center', { exact: true }).fill('C-42');
    };
    for (const [theme, width] of [
      ['dark', 1280],
      ['dark', 390],
      ['light', 390],
      ['light', 1280],
    ] as const) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await useTheme(page, theme);
      await fillIn();
      await settle(page);
      expect(describeViolations(`manual entry with a column (${theme}, ${width})`, await axeViolations(page))).toEqual([]);
      await page.getByRole('button', { name: 'Add column' }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: screenshotPath(`manual-entry-extra-column-${theme}-${width}`) });
    }
    await page.getByRole('button', { name: 'Create Accounts' }).click();
    await page.getByRole('heading', { name, level: 2 }).waitFor();
    const project = (await user.json<Project[]>('/api/projects')).find((p) => p.name === name)!;
    expect(project.attributeKeys).toEqual(['costCenter']);

    const { details } = await openHistory(project.id, `Cole${tag} Manual`);
    await details.getByText('Cost Center').waitFor();
    await details.getByText('C-42').waitFor();
    await page.screenshot({ path: screenshotPath('manual-entry-extra-column-drawer-light') });
  });

  it("adds a named column in Add people's typed entry; the person added keeps its value", async () => {
    const { page, user } = session;
    const name = `Manual columns ${tag}`;
    const target = (await user.json<Project[]>('/api/projects')).find((p) => p.name === name)!;
    const dialog = page.getByRole('dialog', { name: `Add people to ${name}` });
    const typeIn = async () => {
      await page.goto(`${app}/projects/${target.id}`);
      await page.getByRole('button', { name: 'Add people' }).click();
      await dialog.getByLabel('First name, person 1').fill(`Dana${tag}`);
      await dialog.getByLabel('Last name, person 1').fill('Typed');
      await dialog.getByLabel('Email, person 1').fill(`dana.${tag}@example.com`);
      await dialog.getByRole('button', { name: 'Add column' }).click();
      await dialog.getByLabel('Column name').fill('Cost Center');
      await dialog.getByRole('button', { name: 'Add', exact: true }).click();
      await dialog.getByLabel('Cost Center, person 1').fill('C-7');
      await dialog.getByRole('button', { name: 'Check these people' }).click();
      await dialog.getByText('1 valid', { exact: true }).waitFor();
    };
    for (const [theme, width] of [
      ['dark', 390],
      ['light', 1280],
    ] as const) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await useTheme(page, theme);
      await typeIn();
      await settle(page);
      expect(describeViolations(`add people with a column (${theme}, ${width})`, await axeViolations(page))).toEqual([]);
      await dialog.getByLabel('Cost Center, person 1').scrollIntoViewIfNeeded();
      await page.screenshot({ path: screenshotPath(`add-people-extra-column-${theme}-${width}`) });
    }
    await dialog.getByRole('button', { name: 'Add people' }).click();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('cell', { name: `dana.${tag}@example.com` }).waitFor();
    const added = (await user.json<{ items: { email: string; attributes?: Record<string, string> }[] }>(`/api/projects/${target.id}/accounts?limit=10`)).items.find((a) => a.email === `dana.${tag}@example.com`)!;
    expect(added.attributes).toEqual({ costCenter: 'C-7' });
  });
});
